/**
 * Credentials never leave politely: a URL's userinfo (`user:secret@`) is cut from every URL we show
 * in an error, a decision, an event, a log line or CLI output. Crawlers log those, and logs travel.
 */

/** Userinfo in anything that looks like `scheme://user:pass@host` (also in text that is no valid URL). */
const USERINFO = /(\/\/)[^/?#@\s]*@/g;

/** `url` without its username and password; for text that does not parse, the userinfo is cut out. */
export function withoutCredentials(url: string | URL): string {
  if (url instanceof URL) {
    if (!url.username && !url.password) return url.href;
    const copy = new URL(url.href);
    copy.username = '';
    copy.password = '';
    return copy.href;
  }
  try {
    return withoutCredentials(new URL(url));
  } catch {
    return url.replace(USERINFO, '$1');
  }
}

/** Free text (an error message) with the userinfo of any URL in it cut out. */
export function redactCredentials(text: string): string {
  return text.replace(USERINFO, '$1');
}
