// The TypeScript types of openapi.yaml (tests/api/test_typescript_client.py runs this): what
// openapi-typescript's CLI writes with `--default-non-nullable false --array-length`, and one
// thing more. A string of JSON (`contentMediaType: application/json`) with a `contentSchema`,
// as a stream message's `data`, is typed as the value that JSON holds: its `contentSchema`.
// openapi-typescript does not read `contentSchema` by itself (7.13 types it a plain string).
// A client parses the JSON (JSON.parse) and holds a value of that type.
import fs from "node:fs";
import { pathToFileURL } from "node:url";

import openapiTS, { astToString, oapiRef } from "openapi-typescript";

const [input, output] = process.argv.slice(2);

function parsedJson(schemaObject) {
  const content = schemaObject.contentSchema;
  if (schemaObject.contentMediaType !== "application/json" || typeof content?.$ref !== "string") {
    return undefined; // everything else as openapi-typescript types it
  }
  return oapiRef(content.$ref);
}

const ast = await openapiTS(pathToFileURL(input), {
  // Fields with a default are optional in requests (the server fills them in), as the schema
  // says; an array of a known length (by side: two) is a tuple, so indexing it gives a value.
  defaultNonNullable: false,
  arrayLength: true,
  transform: parsedJson,
});
fs.writeFileSync(output, astToString(ast));
