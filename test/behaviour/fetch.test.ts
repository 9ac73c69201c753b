import { describeBehaviour } from './driver.js';
import { fetchDriver } from './fetch-driver.js';

describeBehaviour(fetchDriver);
