// AAP-3's segment carrier: it judges each call on its own, so nothing is carried.
import { stateless, type SegmentCarrier } from "../segment-carrier.js";

export const aap3Segment: SegmentCarrier = stateless;
