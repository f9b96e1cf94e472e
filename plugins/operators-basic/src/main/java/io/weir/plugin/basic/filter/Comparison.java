package io.weir.plugin.basic.filter;

/** The comparison operators of a {@code filter} (config {@code op}). */
public enum Comparison {
    EQ("=="), NE("!="), LT("<"), LE("<="), GT(">"), GE(">=");

    private final String symbol;

    Comparison(String symbol) {
        this.symbol = symbol;
    }

    /** @return the symbol used in job files */
    public String symbol() {
        return symbol;
    }

    /**
     * @param symbol one of {@code == != < <= > >=}
     * @return the comparison
     * @throws IllegalArgumentException listing the valid symbols if {@code symbol} is none of them
     */
    public static Comparison parse(String symbol) {
        for (Comparison c : values()) {
            if (c.symbol.equals(symbol)) {
                return c;
            }
        }
        throw new IllegalArgumentException("must be one of ==, !=, <, <=, >, >=; got '" + symbol + "'");
    }

    /** @return whether this comparison is true for a three-way comparison result {@code cmp} (field vs value) */
    public boolean holds(int cmp) {
        return switch (this) {
            case EQ -> cmp == 0;
            case NE -> cmp != 0;
            case LT -> cmp < 0;
            case LE -> cmp <= 0;
            case GT -> cmp > 0;
            case GE -> cmp >= 0;
        };
    }

    /** @return whether this is {@code ==} or {@code !=}, the only ones defined on booleans */
    public boolean isEquality() {
        return this == EQ || this == NE;
    }
}
