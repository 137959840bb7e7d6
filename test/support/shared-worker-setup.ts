/**
 * Runs before each test file of the `shared` project (vitest.config.ts), whose files share one
 * module graph per worker: what a module keeps for the whole process is reset here, so a file
 * starts as it would in a fresh process. Today that is the redactor's secrets: an earlier file's
 * bot registered its own (a signing secret `secret`), which would mask that word in this file's
 * replies.
 */
import { forgetSecrets } from '../../src/redact.js';

forgetSecrets();
