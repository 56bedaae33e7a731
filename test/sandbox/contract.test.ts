// The one contract suite, run against every backend.
import { sandboxBackend } from "../../src/sandbox/index.js";
import { sandboxContract } from "./contractSuite.js";
import { NEEDS_BWRAP } from "./sandboxFixture.js";

sandboxContract(() => sandboxBackend("none"), false);
sandboxContract(() => sandboxBackend("bwrap"), NEEDS_BWRAP);
