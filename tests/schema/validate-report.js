// Validates faultline's JSON reports against docs/report.schema.json (draft-07).
// Usage: node validate-report.js FILE.json...; a .jsonl file is checked line by line.
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv = require('ajv');

const schema = require(path.join(__dirname, '..', '..', 'docs', 'report.schema.json'));
const validate = new Ajv({ allErrors: true, jsonPointers: true }).compile(schema);
let failed = false;
for (const file of process.argv.slice(2)) {
  const text = fs.readFileSync(file, 'utf8');
  const documents = file.endsWith('.jsonl') ? text.split('\n').filter((line) => line.trim()) : [text];
  documents.forEach((document, index) => {
    if (validate(JSON.parse(document))) return;
    failed = true;
    for (const error of validate.errors) console.log(`${file}#${index + 1}: ${error.dataPath || '/'} ${error.message}`);
  });
  if (!failed) console.log(`${file}: valid faultline.report/1`);
}
process.exit(failed ? 1 : 0);
