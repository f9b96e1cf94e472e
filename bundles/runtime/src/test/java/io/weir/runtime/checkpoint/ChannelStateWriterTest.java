package io.weir.runtime.checkpoint;

import io.weir.core.checkpoint.ChannelStateHandle;
import io.weir.core.checkpoint.StreamStateHandle;
import io.weir.core.storage.CheckpointStateOutputStream;
import io.weir.core.storage.CheckpointStreamFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChannelStateWriterTest {
    @TempDir
    Path dir;

    /** Writes every stream to its own file. */
    private CheckpointStreamFactory files() {
        return () -> {
            Path f = Files.createTempFile(dir, "cs", ".bin");
            var raw = Files.newOutputStream(f);
            return new CheckpointStateOutputStream() {
                long n;

                @Override
                public void write(int b) throws IOException {
                    raw.write(b);
                    n++;
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    raw.write(b, off, len);
                    n += len;
                }

                @Override
                public long position() {
                    return n;
                }

                @Override
                public StreamStateHandle closeAndGetHandle() throws IOException {
                    raw.close();
                    return new StreamStateHandle.FileStateHandle(f.toString(), n);
                }

                @Override
                public void close() throws IOException {
                    raw.close();
                }
            };
        };
    }

    @Test
    void buffersRoundTripInOrder() throws Exception {
        List<byte[]> buffers = List.of(new byte[] {1, 2, 3}, new byte[0], new byte[] {9});
        ChannelStateHandle h = ChannelStateWriter.write(5, buffers, files());

        assertThat(h.channel()).isEqualTo(5);
        assertThat(h.dataBytes()).isEqualTo(4);
        assertThat(ChannelStateWriter.read(h)).containsExactly(new byte[] {1, 2, 3}, new byte[0], new byte[] {9});
    }

    @Test
    void noBuffersNoHandle() throws Exception {
        assertThat(ChannelStateWriter.write(0, List.of(), files())).isNull();
    }

    @Test
    void truncatedStateIsReportedWithTheChannel() throws Exception {
        ChannelStateHandle h = ChannelStateWriter.write(2, List.of(new byte[100]), files());
        Path f = Path.of(((StreamStateHandle.FileStateHandle) h.delegate()).path());
        Files.write(f, java.util.Arrays.copyOf(Files.readAllBytes(f), 50));
        assertThatThrownBy(() -> ChannelStateWriter.read(h)).hasMessageContaining("channel 2").hasMessageContaining("truncated");
    }
}
