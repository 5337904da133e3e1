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

/** Text (a setting's value as given) with every URL in it shown as its origin only. */
export function redactUrls(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s,|"'<>]+/gi, (url) => redactUrl(url));
}
