/**
 * The HTTP edge every service shares: RFC 9457 problem documents, and the errors the servlet container
 * and Spring raise before a controller runs (bad URI encoding, oversized headers, unknown paths) answered
 * as problem documents too, never as the container's HTML page.
 */
@NullMarked
package io.agentrun.platform.web;

import org.jspecify.annotations.NullMarked;
