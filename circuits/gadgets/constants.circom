pragma circom 2.1.0;

// Values of the record encoding (sdk/core/encoding.ts) that circuits compare against.
// test/circuits/constants.test.ts checks each against the TS definition.

// Slot indices.
function SLOT_KIND() { return 0; }
function SLOT_TOOL() { return 1; }
function SLOT_ARGS() { return 2; }
function SLOT_ACTION() { return 3; }
function SLOT_AUX() { return 4; }
function SLOT_TARGET0() { return 5; }
function SLOT_TARGET1() { return 6; }

// Record kinds.
function KIND_CALL() { return 1; }
function KIND_BLOCKED() { return 2; }
function KIND_AUTHORIZATION() { return 3; }
function KIND_GRANT() { return 4; }
function KIND_REVOKE() { return 5; }

// stringToField("recipient") and stringToField("scope"): the tool slot of grant/revoke records.
function NAMESPACE_RECIPIENT() { return 16442989934606971282186194775971978455572857852483389666760343175110997341426; }
function NAMESPACE_SCOPE() { return 14572520759301579113647908730993830662264903139774567192681876989269284672836; }

// Path witness width (sdk/core/paths.ts): ancestors b_1..b_PREFIX_DEPTH; the root H("/") is implicit.
function PREFIX_DEPTH() { return 4; }
function ROOT_PREFIX_HASH() { return 19481515098444199150144985418337478461903655216179567020994024433300735109847; }

// Record statuses (sdk/core/observations.ts STATUS): 0 not a call, 1 ok, 2 error, 3 blocked.
function STATUS_OK() { return 1; }
