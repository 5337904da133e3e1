/** Provider URLs often carry API keys in the path or query, or credentials: show the origin only. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const hasMore = parsed.pathname.length > 1 || parsed.search !== '';
    return `${parsed.protocol}//${parsed.host}${hasMore ? '/…' : ''}`;
  } catch {
    return '<invalid url>';
  }
}

/**
 * The chain's URLs as logs name them: each redacted, and where two look alike (one provider,
 * two keys) followed by its place in the configured list, so an operator can tell which failed.
 */
export function redactedLabels(urls: readonly string[]): string[] {
  const labels = urls.map(redactUrl);
  return labels.map((label, i) => (labels.indexOf(label) === labels.lastIndexOf(label) ? label : `${label} (URL ${i + 1})`));
}

/** Text (a setting's value as given) with every URL in it shown as its origin only. */
export function redactUrls(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s,|"'<>]+/gi, (url) => redactUrl(url));
}
