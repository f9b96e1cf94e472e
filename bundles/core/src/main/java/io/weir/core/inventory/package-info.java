/** The plugin inventory: what is installed as plugins, its state, types and errors ({@link io.weir.core.inventory.PluginInventory}). */
package io.weir.core.inventory;
