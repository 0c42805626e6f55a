import { describeParity } from "./parity-suite.js";

describeParity("default engine");
