-- Schema 3: settings of the whole vault that every vat must agree on,
-- written once (Store.Claim): the pepper's fingerprint, so that a vat
-- given another pepper refuses to start instead of refusing every token.

CREATE TABLE vault (
    name   text  PRIMARY KEY,
    value  bytea NOT NULL
);
