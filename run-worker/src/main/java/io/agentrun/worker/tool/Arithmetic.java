package io.agentrun.worker.tool;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * A recursive-descent parser and evaluator for arithmetic — no script engine, nothing else can run.
 * <pre>
 * expr   := term (('+' | '-') term)*
 * term   := unary (('*' | '/' | '%') unary)*
 * unary  := ('+' | '-') unary | power
 * power  := atom ('^' unary)?                 right-associative, binds tighter than unary minus on its left
 * atom   := number | constant | function '(' expr (',' expr)* ')' | '(' expr ')'
 * </pre>
 * Functions: sqrt, abs, round, floor, ceil, min, max, pow, ln, log10, exp, sin, cos, tan. Constants: pi, e.
 */
final class Arithmetic {

    static final int MAX_LENGTH = 1000;
    private static final int MAX_DEPTH = 100;

    private final String text;
    private int pos;
    private int depth;

    private Arithmetic(String text) {
        this.text = text;
    }

    /** @throws ToolException with where and why the expression is wrong */
    static double evaluate(String expression) throws ToolException {
        if (expression.length() > MAX_LENGTH) {
            throw new ToolException("expression longer than " + MAX_LENGTH + " characters");
        }
        Arithmetic parser = new Arithmetic(expression);
        double value = parser.expr();
        parser.skipSpaces();
        if (parser.pos < expression.length()) {
            throw parser.error("unexpected '" + expression.charAt(parser.pos) + "'");
        }
        if (!Double.isFinite(value)) {
            throw new ToolException("the result is not a finite number");
        }
        return value;
    }

    /** 42 rather than 42.0; no exponent for ordinary magnitudes. */
    static String format(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }

    private double expr() throws ToolException {
        double value = term();
        while (true) {
            if (eat('+')) {
                value += term();
            } else if (eat('-')) {
                value -= term();
            } else {
                return value;
            }
        }
    }

    private double term() throws ToolException {
        double value = unary();
        while (true) {
            if (eat('*')) {
                value *= unary();
            } else if (eat('/')) {
                double divisor = unary();
                if (divisor == 0) {
                    throw error("division by zero");
                }
                value /= divisor;
            } else if (eat('%')) {
                double divisor = unary();
                if (divisor == 0) {
                    throw error("division by zero");
                }
                value %= divisor;
            } else {
                return value;
            }
        }
    }

    private double unary() throws ToolException {
        if (++depth > MAX_DEPTH) {
            throw error("expression nested too deeply");
        }
        try {
            if (eat('-')) {
                return -unary();
            }
            if (eat('+')) {
                return unary();
            }
            return power();
        } finally {
            depth--;
        }
    }

    private double power() throws ToolException {
        double base = atom();
        if (eat('^')) {
            return Math.pow(base, unary());
        }
        return base;
    }

    private double atom() throws ToolException {
        skipSpaces();
        if (eat('(')) {
            double value = expr();
            expect(')');
            return value;
        }
        if (pos < text.length() && (Character.isDigit(text.charAt(pos)) || text.charAt(pos) == '.')) {
            return number();
        }
        if (pos < text.length() && Character.isLetter(text.charAt(pos))) {
            return named();
        }
        throw error(pos < text.length() ? "unexpected '" + text.charAt(pos) + "'" : "unexpected end of expression");
    }

    private double number() throws ToolException {
        int start = pos;
        while (pos < text.length() && (Character.isDigit(text.charAt(pos)) || text.charAt(pos) == '.')) {
            pos++;
        }
        if (pos < text.length() && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')
                && pos + 1 < text.length() && (Character.isDigit(text.charAt(pos + 1)) || "+-".indexOf(text.charAt(pos + 1)) >= 0)) {
            pos += 2;
            while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
                pos++;
            }
        }
        try {
            return Double.parseDouble(text.substring(start, pos));
        } catch (NumberFormatException e) {
            throw error("'" + text.substring(start, pos) + "' is not a number");
        }
    }

    private double named() throws ToolException {
        int start = pos;
        while (pos < text.length() && Character.isLetterOrDigit(text.charAt(pos))) {
            pos++;
        }
        String name = text.substring(start, pos).toLowerCase(Locale.ROOT);
        switch (name) {
            case "pi":
                return Math.PI;
            case "e":
                return Math.E;
            default:
                break;
        }
        expect('(');
        double a = expr();
        double b = Double.NaN;
        boolean two = eat(',');
        if (two) {
            b = expr();
        }
        expect(')');
        return apply(name, a, b, two);
    }

    private double apply(String name, double a, double b, boolean two) throws ToolException {
        boolean binary = name.equals("min") || name.equals("max") || name.equals("pow");
        if (binary != two) {
            throw error(name + " takes " + (binary ? "two arguments" : "one argument"));
        }
        return switch (name) {
            case "sqrt" -> a < 0 ? fail("sqrt of a negative number") : Math.sqrt(a);
            case "abs" -> Math.abs(a);
            case "round" -> Math.round(a);
            case "floor" -> Math.floor(a);
            case "ceil" -> Math.ceil(a);
            case "ln" -> a <= 0 ? fail("ln of a non-positive number") : Math.log(a);
            case "log10" -> a <= 0 ? fail("log10 of a non-positive number") : Math.log10(a);
            case "exp" -> Math.exp(a);
            case "sin" -> Math.sin(a);
            case "cos" -> Math.cos(a);
            case "tan" -> Math.tan(a);
            case "min" -> Math.min(a, b);
            case "max" -> Math.max(a, b);
            case "pow" -> Math.pow(a, b);
            default -> fail("unknown function '" + name + "'");
        };
    }

    private double fail(String message) throws ToolException {
        throw error(message);
    }

    private boolean eat(char c) {
        skipSpaces();
        if (pos < text.length() && text.charAt(pos) == c) {
            pos++;
            return true;
        }
        return false;
    }

    private void expect(char c) throws ToolException {
        if (!eat(c)) {
            throw error("expected '" + c + "'");
        }
    }

    private void skipSpaces() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private ToolException error(String message) {
        return new ToolException(message + " at position " + (pos + 1) + " of '" + text + "'");
    }
}
