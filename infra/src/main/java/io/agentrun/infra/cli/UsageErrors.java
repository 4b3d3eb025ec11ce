package io.agentrun.infra.cli;

import java.io.PrintWriter;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.UnmatchedArgumentException;

/** How {@code ./agentrun local} and {@code bench} answer bad input: what is accepted is shown, exit status 2. */
public final class UsageErrors {

    private UsageErrors() {
    }

    /** picocli's message after {@code prefix}, its guess at a misspelt option, then the whole usage. */
    public static IParameterExceptionHandler printedAs(String prefix) {
        return (e, args) -> {
            PrintWriter err = e.getCommandLine().getErr();
            err.println(prefix + ": " + e.getMessage());
            UnmatchedArgumentException.printSuggestions(e, err);
            e.getCommandLine().usage(err);
            return e.getCommandLine().getCommandSpec().exitCodeOnInvalidInput();
        };
    }
}
