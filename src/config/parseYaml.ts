// The YAML parser, in a file of its own so that readConfig.ts can load it only when a config file
// exists: bundled, this import is the code of the whole parser.
export { parse as parseYaml } from "yaml";
