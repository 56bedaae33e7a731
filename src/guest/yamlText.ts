// The YAML writer, in a file of its own so that the metadata server loads it on the first
// request for a YAML document: bundled, this import is the code of the whole YAML library,
// which every runner would otherwise set up at its start for a server most agents never ask.
export { stringify as yamlText } from "yaml";
