/**
 * The TOC reader's loops (assembly/toc) and the list rows writer (assembly/listing) as one module, for `iostore list`
 * (src/cli/chunk-rows.ts): a .utoc read into its memory is scanned and listed by one instance. A short `list` then
 * compiles and instantiates one module, not two (the second had cost ~0.4 ms). Both parts place their data from the
 * same `base()`.
 */
export * from '../toc/index';
export {
  TABLE, CSV, JSON, setTables, folderCells, scan, markTypes, setWidths, writeTable, writeCsv, writeJson, written,
  maxIndex, maxSize, maxStored, maxBlocks, typeWidth, pathWidth, hashWidth, pathBytes,
} from '../listing/index';
