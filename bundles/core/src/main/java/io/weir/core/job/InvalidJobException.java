package io.weir.core.job;

/**
 * A job file is malformed or inconsistent with the installed plugins. The message names the field
 * (by its path in the job file) and what to do; nothing has been started.
 */
public class InvalidJobException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong, naming the field */
    public InvalidJobException(String message) {
        super(message);
    }

    /** @param message what is wrong; @param cause the parser's error */
    public InvalidJobException(String message, Throwable cause) {
        super(message, cause);
    }
}
