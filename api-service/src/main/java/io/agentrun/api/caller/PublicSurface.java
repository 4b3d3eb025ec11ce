package io.agentrun.api.caller;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the few handlers publishable keys may call (running the agents in their scope and joining their
 * own runs): the browser chain admits publishable keys to exactly these handlers' routes ({@link PublicRoutes}).
 * Every other handler refuses publishable keys with 403, so a new endpoint is closed to browsers until someone
 * decides otherwise.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface PublicSurface {
}
