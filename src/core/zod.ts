/**
 * zod for the whole project: the tree-shakeable `zod/mini` (the classic API does not tree-shake and
 * was 444 KiB of the Lambda bundle) with the English messages the classic API loads by default.
 * Only the functions used are gathered here: re-exporting the whole namespace would keep all of it
 * (every locale among it) in the bundle.
 */
import {
  array,
  boolean,
  config,
  enum as enumOf,
  gte,
  int,
  iso,
  lte,
  maxLength,
  minLength,
  NEVER,
  number,
  object,
  optional,
  partial,
  pipe,
  record,
  refine,
  regex,
  startsWith,
  strictObject,
  string,
  transform,
} from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

const z = {
  array,
  boolean,
  enum: enumOf,
  gte,
  int,
  iso,
  lte,
  maxLength,
  minLength,
  NEVER,
  number,
  object,
  optional,
  partial,
  pipe,
  record,
  refine,
  regex,
  startsWith,
  strictObject,
  string,
  transform,
};

export { z };
