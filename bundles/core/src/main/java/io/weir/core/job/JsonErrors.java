package io.weir.core.job;

import jakarta.json.stream.JsonLocation;
import jakarta.json.stream.JsonParsingException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a JSON-P parser error (Parsson's {@code Invalid token=CURLYCLOSE at (line no=1, ...).
 * Expected tokens are: [STRING]}) into a message for people:
 * {@code job file is not valid JSON at line 1, column 9: found '}', expected a field name in double quotes}.
 * Stateless.
 */
final class JsonErrors {
    private static final Pattern INVALID_TOKEN = Pattern.compile("Invalid token=(\\w+).*Expected tokens are: \\[([\\w, ]*)]", Pattern.DOTALL);
    private static final Pattern DUPLICATE_KEY = Pattern.compile("Duplicate key '(.*)' is not allowed");
    private static final Pattern UNEXPECTED_CHAR = Pattern.compile("Unexpected char (\\d+)");
    private static final List<String> ANY_VALUE = List.of("CURLYOPEN", "SQUAREOPEN", "STRING", "NUMBER", "TRUE", "FALSE", "NULL");

    private JsonErrors() {
    }

    /**
     * @param e the parser's error
     * @param text the whole job file (to place an unexpected end of file, which Parsson misplaces)
     * @return {@code job file is not valid JSON at line L, column C: <short reason>}
     */
    static String describe(JsonParsingException e, String text) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        JsonLocation at = e.getLocation();
        long line = at == null ? -1 : at.getLineNumber();
        long column = at == null ? -1 : at.getColumnNumber();
        String reason;
        Matcher token = INVALID_TOKEN.matcher(message);
        Matcher chr = UNEXPECTED_CHAR.matcher(message);
        Matcher dup = DUPLICATE_KEY.matcher(message);
        if (token.find()) {
            String found = token.group(1);
            List<String> expected = new ArrayList<>(List.of(token.group(2).split(",\\s*")));
            if (found.equals("EOF")) {
                String[] lines = text.split("\r\n|\r|\n", -1);
                line = lines.length;
                column = lines[lines.length - 1].length() + 1;
                reason = "the file ends early, expected " + expected(expected) + " (an unclosed '{' or '['?)";
            } else {
                reason = "found " + token(found) + ", expected " + expected(expected);
                if ((found.equals("CURLYCLOSE") || found.equals("SQUARECLOSE")) && !expected.contains(found)) {
                    reason += " (a trailing comma?)";
                }
            }
        } else if (chr.find()) {
            int c = Integer.parseInt(chr.group(1));
            if (message.contains(", expecting '")) {
                reason = "unexpected character " + character(c) + " in a word that is not true, false or null"
                        + " (field names and strings need double quotes)";
            } else if (c < 0x20) {
                reason = "unexpected control character " + character(c) + " (a line break inside a string? write it as \\n)";
            } else if (Character.isLetter(c)) {
                reason = "unexpected character " + character(c) + " (field names and strings need double quotes)";
            } else {
                reason = "unexpected character " + character(c);
            }
        } else if (dup.find()) {
            reason = "field '" + dup.group(1) + "' appears twice in the same object (give each field once)";
        } else if (message.startsWith("Expected EOF token")) {
            reason = "more text after the job object ends (one job per file; a stray '}' or a second object?)";
        } else {
            reason = message.replaceAll("\\s*at \\(line no=.*?\\)", "");
        }
        String where = line < 0 ? "" : " at line " + line + ", column " + column;
        return "job file is not valid JSON" + where + ": " + reason;
    }

    private static String expected(List<String> tokens) {
        if (tokens.equals(List.of("STRING"))) {
            return "a field name in double quotes";
        }
        if (tokens.containsAll(ANY_VALUE)) {
            List<String> rest = new ArrayList<>(tokens);
            rest.removeAll(ANY_VALUE);
            rest.add(0, "VALUE");
            tokens = rest;
        }
        List<String> words = tokens.stream().map(JsonErrors::token).toList();
        if (words.size() == 1) {
            return words.get(0);
        }
        return String.join(", ", words.subList(0, words.size() - 1)) + " or " + words.get(words.size() - 1);
    }

    private static String token(String t) {
        return switch (t) {
            case "CURLYOPEN" -> "'{'";
            case "CURLYCLOSE" -> "'}'";
            case "SQUAREOPEN" -> "'['";
            case "SQUARECLOSE" -> "']'";
            case "COLON" -> "':'";
            case "COMMA" -> "','";
            case "STRING" -> "a string";
            case "NUMBER" -> "a number";
            case "VALUE" -> "a value";
            case "EOF" -> "the end of the file";
            default -> t.toLowerCase(Locale.ROOT);
        };
    }

    private static String character(int c) {
        return c < 0x20 || c == 0x7f ? String.format("U+%04X", c) : "'" + Character.toString(c) + "'";
    }
}
