package io.weir.launcher;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class ClusterCommandTest {
    @Test
    void printsMembersOldestFirstWithTheirRolesJobsAndWhetherTheClusterIsSafe() {
        JsonObject answer = Json.createReader(new StringReader("""
                {"name":"weir","leader":"http://127.0.0.1:8081","quorum":2,"configured":3,"safe":false,"members":[
                 {"id":"a","address":"127.0.0.1:5701","url":"http://127.0.0.1:8081","leader":true,"self":false,"jobs":["ha-a","ha-b"]},
                 {"id":"b","address":"127.0.0.1:5702","url":"http://127.0.0.1:8082","leader":false,"self":true,"jobs":[]}]}
                """)).readObject();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ClusterCommand.print(answer, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(bytes.toString(StandardCharsets.UTF_8).lines()).containsExactly(
                "Cluster weir: 2 of 3 configured members (a majority is 2)",
                "NODE                   MEMBER          ROLE    JOBS",
                "http://127.0.0.1:8081  127.0.0.1:5701  leader  ha-a, ha-b",
                "http://127.0.0.1:8082  127.0.0.1:5702  asked   -",
                "Not safe yet: partitions are still being copied; stopping another node now may lose jobs");
    }
}
