#!/usr/bin/env node
console.log("kyverno-ts");
