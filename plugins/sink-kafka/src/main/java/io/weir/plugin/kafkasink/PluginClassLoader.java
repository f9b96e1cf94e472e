package io.weir.plugin.kafkasink;

import java.util.function.Supplier;

/**
 * Runs kafka-clients constructors with this bundle's class loader as the thread's context class
 * loader: kafka-clients resolves class-valued configuration (serializers, partitioners, login
 * callbacks) through it, and under Felix the task thread's default one does not see the classes
 * embedded in this bundle. Stateless.
 */
final class PluginClassLoader {
    private PluginClassLoader() {
    }

    /** @return what {@code action} returns, run with the context class loader set to this bundle's */
    static <T> T call(Supplier<T> action) {
        Thread t = Thread.currentThread();
        ClassLoader previous = t.getContextClassLoader();
        t.setContextClassLoader(PluginClassLoader.class.getClassLoader());
        try {
            return action.get();
        } finally {
            t.setContextClassLoader(previous);
        }
    }
}
