package io.agentrun.infra.process;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Runs another main class and exits when the parent process goes away: the parent holds our stdin, so
 * end-of-file on stdin means it died (even by SIGKILL) and this child must not be left behind.
 *
 * <p>Usage: {@code java -cp … io.agentrun.infra.process.ParentWatch <main class> [args…]}
 */
public final class ParentWatch {

    private ParentWatch() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: ParentWatch <main class> [args...]");
        }
        Thread watch = new Thread(ParentWatch::exitOnEndOfInput, "parent-watch");
        watch.setDaemon(true);
        watch.start();
        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        try {
            main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
        } catch (InvocationTargetException failedStart) {
            // A main that throws leaves the JVM to whatever non-daemon threads it started: an api node whose start failed
            // (Redis down) lived on, never serving, because the MCP SDK's session sweeper runs on a non-daemon Reactor
            // scheduler that nothing disposes. Exiting lets whoever supervises this process start it again.
            failedStart.getCause().printStackTrace();
            System.exit(1);
        }
    }

    private static void exitOnEndOfInput() {
        try (InputStream in = System.in) {
            while (in.read() != -1) {
                // the parent never writes; any byte is ignored
            }
        } catch (IOException e) {
            // a broken pipe means the same as end of input
        }
        System.err.println("parent process gone; exiting");
        System.exit(143);
    }
}
