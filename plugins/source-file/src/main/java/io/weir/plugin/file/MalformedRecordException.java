package io.weir.plugin.file;

import java.io.IOException;

/**
 * An input file holds something that is not a valid record of the configured schema: broken JSON
 * syntax, or a value whose JSON type does not fit its field's type. The message names the file, the
 * 0-based record index, the field (for type errors) and the character offset in the file.
 */
public final class MalformedRecordException extends IOException {
    private static final long serialVersionUID = 1L;

    /** @param message the complete message, including file and record index */
    public MalformedRecordException(String message) {
        super(message);
    }
}
