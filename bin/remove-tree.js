#!/usr/bin/env node
// The detached process an interrupted command hands its staged output folder to (src/cli/detached-removal.ts): the
// command exits at once, and this removes the folder (the path given).
'use strict';
require('../dist/cli/main.bundle.cjs').removeHandedOver(process.argv[2]);
