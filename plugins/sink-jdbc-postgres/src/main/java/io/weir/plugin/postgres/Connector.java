package io.weir.plugin.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;

/**
 * Opens connections for one {@code jdbc-postgres} sink with {@link org.postgresql.Driver} directly (not
 * through {@link java.sql.DriverManager}, which does not see drivers of other bundles in OSGi), and
 * turns connection failures into messages naming the server address and the user, never the password.
 * Stateless and thread-safe.
 */
final class Connector {
    private final PostgresSinkSettings settings;
    private final String address;
    private final String database;

    /** @throws IllegalArgumentException if the driver cannot parse the URL */
    Connector(PostgresSinkSettings settings) {
        this.settings = settings;
        Properties parsed = org.postgresql.Driver.parseURL(settings.url(), null);
        if (parsed == null) {
            throw new IllegalArgumentException("the PostgreSQL driver cannot parse url " + settings.redactedUrl());
        }
        this.address = parsed.getProperty("PGHOST", "localhost") + ":" + parsed.getProperty("PGPORT", "5432");
        this.database = parsed.getProperty("PGDBNAME", "");
    }

    /** @return {@code host:port} of the server, as named in error messages */
    String address() {
        return address;
    }

    /** @return the database name in the URL */
    String database() {
        return database;
    }

    /**
     * @param applicationName shown in {@code pg_stat_activity}
     * @return a new connection with autocommit on
     * @throws ConnectException if the server cannot be reached ({@link ConnectException#transientFailure} true),
     *         refuses the credentials, or the database does not exist; the message names the address and user
     */
    Connection connect(String applicationName) throws ConnectException {
        Properties p = new Properties();
        p.setProperty("user", settings.user());
        if (settings.password() != null) {
            p.setProperty("password", settings.password());
        }
        p.setProperty("connectTimeout", Integer.toString(settings.connectTimeoutSeconds()));
        p.setProperty("loginTimeout", Integer.toString(settings.connectTimeoutSeconds()));
        p.setProperty("tcpKeepAlive", "true");
        p.setProperty("ApplicationName", applicationName);
        Connection c;
        try {
            c = new org.postgresql.Driver().connect(settings.url(), p);
        } catch (SQLException e) {
            throw translate(e);
        }
        if (c == null) {
            throw new ConnectException("the PostgreSQL driver does not accept url " + settings.redactedUrl(), null, false);
        }
        return c;
    }

    private ConnectException translate(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String message = e.getMessage();
        if (state.equals("28P01") || state.equals("28000")) {
            return new ConnectException("PostgreSQL at " + address + " refused user '" + settings.user() + "' (" + message
                    + "): check user and password (password, password-env or password-file)", e, false);
        }
        if (state.equals("3D000")) {
            return new ConnectException("PostgreSQL at " + address + " has no database '" + database + "' (" + message
                    + "): fix the database in url", e, false);
        }
        if (state.startsWith("08") || state.equals("57P03")) {
            return new ConnectException("cannot connect to PostgreSQL at " + address + " (" + message + "): is the server"
                    + " running and accepting TCP connections there? (url " + settings.redactedUrl() + ")", e, true);
        }
        return new ConnectException("cannot connect to PostgreSQL at " + address + " as user '" + settings.user() + "': "
                + message + " (SQLState " + state + ")", e, false);
    }

    /** @return whether {@code e} means the connection is gone (worth a new connection and another try) */
    static boolean isConnectionLoss(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                String state = s.getSQLState();
                if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A connection could not be opened; the message names the address and user. */
    static final class ConnectException extends Exception {
        private static final long serialVersionUID = 1L;
        private final boolean transientFailure;

        ConnectException(String message, Throwable cause, boolean transientFailure) {
            super(message, cause);
            this.transientFailure = transientFailure;
        }

        /** @return whether trying again later may succeed (the server was unreachable, not the credentials wrong) */
        boolean transientFailure() {
            return transientFailure;
        }
    }
}
