package io.weir.plugin.file;

import java.io.IOException;

/**
 * An input file holds something that is not a valid record of the configured schema: broken JSON
 * syntax (numbers included: RFC 8259's grammar), bytes that are not UTF-8 in a string, or a value whose
 * JSON type or range does not fit its field's type. The message names the file, the record number
 * (counted from 1), the field (for type errors) and the byte offset in the file, and says to fix or
 * remove the record and run the job again.
 */
public final class MalformedRecordException extends IOException {
    private static final long serialVersionUID = 1L;

    /** @param message the complete message, including file and record index */
    public MalformedRecordException(String message) {
        super(message);
    }
}
