package io.weir.cli.inventory;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The one-line texts the inventory makes of the framework's and SCR's reports. */
class BundlePluginInventoryTest {
    @Test
    void aComponentFailureIsItsInnermostCauseNotTheWholeTrace() {
        String trace = """
                org.osgi.service.component.ComponentException: The constructor threw an exception
                \tat org.apache.felix.scr.impl.inject.internal.ComponentConstructorImpl.newInstance(ComponentConstructorImpl.java:324)
                \tat org.apache.felix.scr.impl.manager.SingleComponentManager.createImplementationObject(SingleComponentManager.java:286)
                Caused by: java.lang.reflect.InvocationTargetException
                \tat java.base/jdk.internal.reflect.NativeConstructorAccessorImpl.newInstance0(Native Method)
                Caused by: java.lang.IllegalStateException: boom: no licence for boom-op
                \tat boom.BoomFactory.<init>(BoomFactory.java:4)
                \t... 40 more
                """;

        assertThat(BundlePluginInventory.causeOf(trace)).isEqualTo("java.lang.IllegalStateException: boom: no licence for boom-op");
        assertThat(BundlePluginInventory.causeOf("java.lang.IllegalStateException: once\n\tat x.Y.z(Y.java:1)\n"))
                .isEqualTo("java.lang.IllegalStateException: once");
        assertThat(BundlePluginInventory.causeOf(null)).isEqualTo("(no failure recorded)");
    }

    @Test
    void aMissingImportIsNamedWithItsVersionFromTheRequirementFilter() {
        assertThat(BundlePluginInventory.packageOf("(osgi.wiring.package=io.weir.does.not.exist)")).isEqualTo("io.weir.does.not.exist");
        assertThat(BundlePluginInventory.packageOf("(&(osgi.wiring.package=io.acme.util)(version>=1.2.0)(!(version>=2.0.0)))"))
                .isEqualTo("io.acme.util >=1.2.0");
    }
}
