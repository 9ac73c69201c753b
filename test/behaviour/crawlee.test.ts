import { crawleeDriver } from './crawlee-driver.js';
import { describeBehaviour } from './driver.js';

// A row per HTTP client: the plugin works through Crawlee's BaseHttpClient, whichever it is.
describeBehaviour(crawleeDriver('got-scraping'));
describeBehaviour(crawleeDriver('impit'));
