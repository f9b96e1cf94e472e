package io.weir.console.api;

import io.weir.console.ConsoleOptions;
import jakarta.annotation.security.DeclareRoles;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import org.eclipse.microprofile.auth.LoginConfig;
import org.eclipse.microprofile.openapi.annotations.OpenAPIDefinition;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.info.Info;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;

/**
 * The console's REST API under {@code /console/api}: reading needs no login; actions need a bearer token from
 * {@code POST /api/login} of a user with role {@value ConsoleOptions#OPERATOR} (MicroProfile JWT).
 */
@ApplicationPath("api")
@LoginConfig(authMethod = "MP-JWT")
@DeclareRoles({ConsoleOptions.OPERATOR, ConsoleOptions.VIEWER})
@OpenAPIDefinition(info = @Info(title = "Weir console API", version = "0.1.0",
        description = "Jobs, checkpoints and diagnosis of the configured Weir nodes; actions for operators."))
@SecurityScheme(securitySchemeName = "console-jwt", type = SecuritySchemeType.HTTP, scheme = "bearer", bearerFormat = "JWT",
        description = "A token from POST /api/login")
public class ConsoleApplication extends Application {
}
