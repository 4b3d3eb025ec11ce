package io.agentrun.infra.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** A count or a port: 1 or more. */
public final class PositiveNumber implements ITypeConverter<Integer> {

    @Override
    public Integer convert(String value) {
        try {
            int n = Integer.parseInt(value.strip());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below, with the same words as a number below 1
        }
        throw new TypeConversionException("needs a positive number, not '" + value + "'");
    }
}
