// AAP-4's segment carrier: the recipient grant/revoke log so far.
import { eventLog, type SegmentCarrier } from "../segment-carrier.js";

export const aap4Segment: SegmentCarrier = eventLog("recipient");
