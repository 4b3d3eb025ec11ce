/**
 * The OpenAPI 3.1 document of the public v1 surface ({@code docs/openapi.yaml}, written by hand and checked against
 * real responses by the e2e suites' contract), served as JSON and YAML with a Swagger UI page.
 */
@NullMarked
package io.agentrun.api.openapi;

import org.jspecify.annotations.NullMarked;
