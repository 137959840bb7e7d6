/** A generation of the node API, named after the RLN commit of its OpenAPI document. */
export type ApiGeneration = 'f379330' | '6887cbf';
