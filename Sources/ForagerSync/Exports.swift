// The product apps link: `import ForagerSync` alone names everything app code uses, from the
// CRDT core's replica ids and clocks and the codec that encodes states for messages, to the
// household model, its wire format, its files and the folder transport; this module adds the app's store on top
// (ADR 0038). Each layer stays its own module so that the compiler keeps the dependencies
// pointing one way (docs/architecture.md).

@_exported import ForagerModel
@_exported import ForagerPersistence
@_exported import ForagerTransport
@_exported import ForagerWire
@_exported import SemanticCRDT
@_exported import SemanticCRDTJSON
