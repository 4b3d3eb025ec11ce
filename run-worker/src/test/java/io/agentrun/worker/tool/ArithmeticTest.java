package io.agentrun.worker.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ArithmeticTest {

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
            "6*7                 | 42",
            "1 + 2 * 3           | 7",
            "(1 + 2) * 3         | 9",
            "2 ^ 3 ^ 2           | 512",
            "-2 ^ 2              | -4",
            "(-2) ^ 2            | 4",
            "10 / 4              | 2.5",
            "10 % 4              | 2",
            "--3                 | 3",
            "sqrt(16) + abs(-2)  | 6",
            "max(3, min(9, 4))   | 4",
            "pow(2, 10)          | 1024",
            "round(2.5)          | 3",
            "1.5e3 + .5          | 1500.5",
            "0.1 + 0.2           | 0.30000000000000004",
            "floor(pi)           | 3",
            "1e20 * 10           | 1000000000000000000000",
    })
    void evaluates(String expression, String expected) throws ToolException {
        assertThat(Arithmetic.format(Arithmetic.evaluate(expression))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "1 / 0                       | division by zero",
            "1 +                         | unexpected end",
            "2 * (3 + 4                  | expected ')'",
            "java.lang.System.exit(0)    | expected '('",
            "nope(1)                     | unknown function 'nope'",
            "sqrt(-1)                    | sqrt of a negative",
            "min(1)                      | takes two arguments",
            "1 2                         | unexpected '2'",
            "exp(1000)                   | not a finite number",
    })
    void refusesWithAReason(String expression, String reason) {
        assertThatThrownBy(() -> Arithmetic.evaluate(expression)).isInstanceOf(ToolException.class).hasMessageContaining(reason);
    }

    @org.junit.jupiter.api.Test
    void deepNestingAndLongInputAreRefusedNotAStackOverflow() {
        assertThatThrownBy(() -> Arithmetic.evaluate("-".repeat(500) + "1")).hasMessageContaining("nested too deeply");
        assertThatThrownBy(() -> Arithmetic.evaluate("1+".repeat(600) + "1")).hasMessageContaining("longer than");
    }
}
