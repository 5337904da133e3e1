/**
 * Every spelling in which a secret could reach a log line: as sent and in the encodings the
 * tests send it in (URL component, every character percent-encoded in either case, `+` for
 * spaces, JSON-escaped), and, for long secrets, a 16-character stretch of the middle so a
 * truncated copy is found too.
 */
export function secretForms(secret: string): string[] {
  const bytes = [...Buffer.from(secret, 'utf8')];
  const hex = (upper: boolean) => bytes.map((b) => `%${b.toString(16).padStart(2, '0')}`).map((h) => (upper ? h.toUpperCase() : h)).join('');
  const forms = new Set([
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
    hex(true),
    hex(false),
    JSON.stringify(secret).slice(1, -1),
  ]);
  if (secret.length > 24) {
    const mid = Math.floor(secret.length / 2) - 8;
    forms.add(secret.slice(mid, mid + 16));
  }
  return [...forms];
}

/** The secrets (and the spelling) found in `text`: empty when none leaked. */
export function leakedSecrets(text: string, secrets: Iterable<string>): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    for (const form of secretForms(secret)) {
      if (text.includes(form)) found.push(`${secret.slice(0, 12)}… as ${form.slice(0, 40)}`);
    }
  }
  return found;
}
