/** Step 1: a secret typed inline (in the channel) is refused; secrets are entered only in a private dialog. */
import { registerTypedSecret } from '../../../log.js';
import { findInlineSecret, withoutSecrets } from '../../inline-secret.js';
import { secretInline } from '../../parse-command-line.js';
import { commandOf, type Step } from '../attempt.js';

export const refuseInlineSecret: Step = (a) => {
  const def = commandOf(a);
  const inline = findInlineSecret(def, a.args);
  if (!inline) return undefined;
  // Whatever logs the raw text masks this value from now on.
  registerTypedSecret(a.args[inline], undefined, 'refused');
  a.args = withoutSecrets(def, a.args);
  return secretInline(def.path, inline, a.args, def);
};
