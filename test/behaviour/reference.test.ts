import { describeBehaviour } from './driver.js';
import { referenceDriver } from './reference-driver.js';

describeBehaviour(referenceDriver);
