package io.agentrun.ops.cli;

import io.agentrun.replay.ReplayFormat;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code jsonl}, {@code sse} or {@code pretty}, in any case, refused with the names it takes. */
final class FormatName implements ITypeConverter<ReplayFormat> {

    @Override
    public ReplayFormat convert(String name) {
        try {
            return ReplayFormat.parse(name);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
