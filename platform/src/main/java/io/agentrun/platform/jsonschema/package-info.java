/**
 * JSON Schemas (2020-12) a run's answer must match ({@code response_format}): the api refuses a schema that is not
 * one, or too large or deep, before the run starts ({@link io.agentrun.platform.jsonschema.AnswerSchemas#check}); the
 * worker validates the model's answer against it ({@link io.agentrun.platform.jsonschema.AnswerSchemas#compile}).
 */
@NullMarked
package io.agentrun.platform.jsonschema;

import org.jspecify.annotations.NullMarked;
