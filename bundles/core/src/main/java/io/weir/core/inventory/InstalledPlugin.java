package io.weir.core.inventory;

import java.util.List;
import java.util.Objects;

/**
 * One plugin as the {@link PluginInventory} sees it: a file of the plugins directory, its bundle, or
 * both.
 *
 * @param bundle the bundle's symbolic name; null when the file is not (yet) a bundle
 * @param version the bundle's version, e.g. {@code 1.0.0}; null with {@code bundle}
 * @param state the bundle's state ({@code INSTALLED}, {@code RESOLVED}, {@code STARTING}, {@code ACTIVE},
 *        {@code STOPPING}), {@code PENDING} for a file FileInstall has not installed yet, {@code FAILED} for a
 *        file that cannot become a bundle
 * @param file the file's name in the plugins directory; null for a bundle installed otherwise
 * @param types the plugin types it declares, sorted by name; empty if none
 * @param error one line saying what is wrong and what to do; null if nothing is
 */
public record InstalledPlugin(String bundle, String version, String state, String file, List<PluginType> types, String error) {
    /** @throws NullPointerException if {@code state} or {@code types} is null, or both {@code bundle} and {@code file} are */
    public InstalledPlugin {
        Objects.requireNonNull(state, "state");
        types = List.copyOf(types);
        if (bundle == null && file == null) {
            throw new NullPointerException("a plugin needs a bundle or a file");
        }
    }

    /** @return whether something is wrong with it */
    public boolean failed() {
        return error != null;
    }

    /** @return {@code file} when there is one, else {@code bundle}: how a user names it */
    public String name() {
        return file != null ? file : bundle;
    }

    /** @return e.g. {@code boom 1.0.0 (boom.jar)}, {@code boom 1.0.0} or {@code x.jar} */
    public String describe() {
        if (bundle == null) {
            return file;
        }
        return bundle + " " + version + (file == null ? "" : " (" + file + ")");
    }
}
