/**
 * What the project promises in writing, held to it: the OpenAPI document (served, linted, every operation called),
 * the error table and the malformed-input table of docs/api.md, fuzzed requests, every example of the README and
 * docs/api.md run as written, the deployment files, and the sources' own rules (one owner of a run's fields; a Redis
 * function's keys in one slot).
 */
package io.agentrun.e2e.contract;
