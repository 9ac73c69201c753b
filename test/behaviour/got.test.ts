import { describeBehaviour } from './driver.js';
import { gotDriver } from './got-driver.js';

describeBehaviour(gotDriver);
