/** Reading the files a run was given: only from URLs this service issued, size-capped, documents turned into text. */
@NullMarked
package io.agentrun.worker.attachment;

import org.jspecify.annotations.NullMarked;
