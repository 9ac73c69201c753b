import { crawleeDriver } from './crawlee-driver.js';
import { describeBehaviour } from './driver.js';

describeBehaviour(crawleeDriver);
