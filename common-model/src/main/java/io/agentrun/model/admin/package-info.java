/** Wire types of the admin API ({@code /admin/v1}): projects and credentials. */
@NullMarked
package io.agentrun.model.admin;

import org.jspecify.annotations.NullMarked;
