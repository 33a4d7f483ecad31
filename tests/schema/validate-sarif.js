// Validates SARIF files against the OASIS SARIF 2.1.0 JSON schema, which the npm package
// @microsoft/jest-sarif ships. Usage: node validate-sarif.js FILE.sarif...; exit 0 when all are valid.
'use strict';
const fs = require('fs');
const Ajv = require('ajv');
const schema = require('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');

// The SARIF schema is a JSON Schema draft-04 document, which ajv 6 reads when told to.
const ajv = new Ajv({ allErrors: true, jsonPointers: true, schemaId: 'id', logger: false });
ajv.addMetaSchema(require('ajv/lib/refs/json-schema-draft-04.json'));
const validate = ajv.compile(schema);
let failed = false;
for (const file of process.argv.slice(2)) {
  const log = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (validate(log)) {
    console.log(`${file}: valid SARIF 2.1.0`);
  } else {
    failed = true;
    for (const error of validate.errors) console.log(`${file}: ${error.dataPath || '/'} ${error.message}`);
  }
}
process.exit(failed ? 1 : 0);
