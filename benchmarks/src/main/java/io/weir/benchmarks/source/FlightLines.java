package io.weir.benchmarks.source;

import java.util.SplittableRandom;

/**
 * Flight-like JSON records (date, delay, distance, origin, destination — the fields and value ranges
 * of /work/shared/data's flights files), generated from a fixed seed so that every run reads the
 * same bytes. About 90 bytes a record. Not thread-safe (one {@link SplittableRandom}).
 */
public final class FlightLines {
    private static final String[] AIRPORTS = {"ATL", "ORD", "DFW", "LAX", "DEN", "DTW", "LAS", "PHX", "SFO", "GSO",
            "BOS", "SEA", "MSP", "IAH", "JFK", "EWR"};

    private final SplittableRandom random = new SplittableRandom(42);
    private final StringBuilder line = new StringBuilder(128);

    /**
     * @param i the record's index (>= 0), which sets its date: seven flights a minute from 2001/01/01
     * @return record {@code i} as one compact JSON object, without a line break
     */
    public String record(long i) {
        long minute = i / 7;
        line.setLength(0);
        line.append("{\"date\":\"2001/");
        two(1 + (minute / 40320) % 12).append('/');
        two(1 + (minute / 1440) % 28).append(' ');
        two((minute / 60) % 24).append(':');
        two(minute % 60);
        line.append("\",\"delay\":").append(random.nextInt(-30, 300))
                .append(",\"distance\":").append(random.nextInt(50, 3000))
                .append(",\"origin\":\"").append(AIRPORTS[random.nextInt(AIRPORTS.length)])
                .append("\",\"destination\":\"").append(AIRPORTS[random.nextInt(AIRPORTS.length)]).append("\"}");
        return line.toString();
    }

    private StringBuilder two(long v) {
        return line.append(v < 10 ? "0" : "").append(v);
    }
}
