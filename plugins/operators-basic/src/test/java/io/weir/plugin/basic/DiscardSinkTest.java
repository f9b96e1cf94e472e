package io.weir.plugin.basic;

import io.weir.api.FieldType;
import io.weir.api.Row;
import io.weir.api.Schema;
import io.weir.api.plugin.PluginConfig;
import io.weir.api.plugin.SinkFactory;
import io.weir.api.sink.TwoPhaseCommittingSink;
import io.weir.plugin.basic.discard.DiscardSinkFactory;
import io.weir.plugin.basic.discard.DiscardTransaction;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DiscardSinkTest {
    private static final Schema INPUT = Schema.builder().field("key", FieldType.LONG).build();

    @Test
    void fullTransactionLifecycleAcceptsRowsAndHandsOutDistinctHandles() throws Exception {
        @SuppressWarnings("unchecked")
        TwoPhaseCommittingSink<DiscardTransaction> sink =
                (TwoPhaseCommittingSink<DiscardTransaction>) new DiscardSinkFactory().create(config(Map.of()), INPUT);

        DiscardTransaction first = sink.beginTransaction();
        sink.write(first, new Row(INPUT, 1L));
        sink.preCommit(first);
        DiscardTransaction second = sink.beginTransaction();
        sink.commit(first);
        sink.commit(first);
        sink.abort(second);
        sink.abortLeftovers(List.of(first));

        assertThat(first).isNotEqualTo(second);
        assertThat(second.sequence()).isEqualTo(first.sequence() + 1);
    }

    @Test
    void transactionHandleSurvivesSerializerRoundTrip() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DiscardTransaction.SERIALIZER.serialize(new DiscardTransaction(42), new DataOutputStream(bytes));

        DiscardTransaction back = DiscardTransaction.SERIALIZER.deserialize(
                new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));

        assertThat(back).isEqualTo(new DiscardTransaction(42));
    }

    @Test
    void configKeysAreRejectedNamingTheField() {
        assertThatThrownBy(() -> new DiscardSinkFactory().validate(config(Map.of("path", "x")), INPUT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("operators[2].config.path");
    }

    @Test
    void serviceLoaderFindsTheDiscardType() {
        assertThat(ServiceLoader.load(SinkFactory.class).stream().map(p -> p.get().type()))
                .contains(DiscardSinkFactory.TYPE);
    }

    private static PluginConfig config(Map<String, Object> values) {
        return new PluginConfig("operators[2].config", values, Path.of("."));
    }
}
