/**
 * The page's icon, which Chromium fetches by itself after each navigation (`/favicon.ico`, or the
 * page's `<link rel="icon">`): a crawler has no use for it, and it would reach the host inside the
 * delay asked between two requests (85-490 ms after each navigation, seen at the wire). Chromium
 * classes it as 'Other' yet asks for an image (`Accept: image/...`), which no other request of a page
 * does (an <img> is 'Image', a beacon 'Ping', fetch() 'Fetch'). It passes the page's request
 * interception (CDP's Fetch domain and Puppeteer's, seen with Chromium 156), so it is refused there,
 * never sent.
 */

/** Whether a paused request is the browser fetching the page's icon. */
export function isFaviconRequest(url: string, resourceType: string, accept: string | undefined): boolean {
  if (resourceType.toLowerCase() !== 'other') return false;
  if (accept?.trimStart().toLowerCase().startsWith('image/')) return true;
  try {
    return new URL(url).pathname === '/favicon.ico';
  } catch {
    return false;
  }
}
