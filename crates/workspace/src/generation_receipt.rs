//! The status of the version-1 transition receipt of the binding's index: the status path
//! behind `docforge_get_generation_diff`. It never repairs: no SQLite, no analysis, no parse,
//! no synchronisation, no write — only the receipt file and file identities (a stat walk).

use crate::receipts::{read_verified, ReceiptState, ReceiptStatus};
use crate::Workspace;
use docforge_db::receipt::{receipt_path, Receipt};
use docforge_db::{cheap_identity, ENGINE_VERSION};

impl Workspace {
    /// `current` when the receipt verifies, belongs to this project, root, engine and index
    /// schema, names the index file as it is and a cheap source identity equal to the
    /// sources' now; otherwise the state it is in, with why.
    pub fn generation_receipt(&self) -> ReceiptStatus<Receipt> {
        use ReceiptState::*;
        let project = self.project();
        let path = receipt_path(self.index_path());
        let receipt = match read_verified::<Receipt>(&project.root, &path) {
            Ok((receipt, stamp)) if (stamp.dev, stamp.ino) != receipt.receipt_file => {
                return ReceiptStatus::new(
                    Unverified,
                    "the receipt file is not the one that was written (a copy or a replacement)",
                );
            }
            Ok((receipt, _)) => receipt,
            Err(mut status) => {
                if status.state == Missing {
                    status.reason = "no transition receipt has been published".into();
                }
                return status;
            }
        };
        if receipt.project_id != project.id
            || receipt.root != project.root.display().to_string()
            || receipt.adapter_version != ENGINE_VERSION
            || receipt.index_schema_version != docforge_index::SCHEMA_VERSION
        {
            return ReceiptStatus::new(
                Unverified,
                "the receipt belongs to another project, root, adapter or index schema",
            );
        }
        let Some(source_identity) = receipt.to.source_identity.clone() else {
            return ReceiptStatus::with(
                Unknown,
                "the receipt's generation has no cheap source identity (it came from editor buffers)",
                receipt,
            );
        };
        if crate::file_identity(self.index_path()) != Some(receipt.index_file) {
            return ReceiptStatus::new(
                Unverified,
                "the index file is not the one the receipt was written for",
            );
        }
        let inventory = docforge_project::discover(project);
        if cheap_identity(&inventory) == source_identity {
            ReceiptStatus::with(
                Current,
                "the sources and the index file are the ones the receipt binds",
                receipt,
            )
        } else {
            ReceiptStatus::with(Stale, "the sources changed since the receipt's generation", receipt)
        }
    }
}
