//! `--generate-token`: a random token kept in the data dir, readable by its
//! owner only, made once and reused by later starts.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use rand::TryRng;

/// The token's file in the data dir.
pub const TOKEN_FILE: &str = "token";
/// 32 bytes from the OS, written as 64 hex digits.
const TOKEN_BYTES: usize = 32;

/// A token and whether this call made it.
#[derive(Debug)]
pub struct StoredToken {
    pub token: String,
    pub path: PathBuf,
    pub created: bool,
}

/// The token stored in `data_dir`, made (mode 0600) if there is none yet.
pub fn load_or_create_token(data_dir: &Path) -> io::Result<StoredToken> {
    let path = data_dir.join(TOKEN_FILE);
    match fs::read_to_string(&path) {
        Ok(text) => {
            let token = text.trim().to_string();
            if token.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{} is empty: delete it to make a new token", path.display()),
                ));
            }
            return Ok(StoredToken {
                token,
                path,
                created: false,
            });
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    fs::create_dir_all(data_dir)?;
    let token = random_token()?;
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&path)?;
    writeln!(file, "{token}")?;
    file.sync_all()?;
    Ok(StoredToken {
        token,
        path,
        created: true,
    })
}

fn random_token() -> io::Result<String> {
    let mut bytes = [0u8; TOKEN_BYTES];
    rand::rngs::SysRng
        .try_fill_bytes(&mut bytes)
        .map_err(io::Error::other)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_once_then_reused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let data = dir.path().join("new-data-dir");
        let first = load_or_create_token(&data).expect("made");
        assert!(first.created);
        assert_eq!(first.token.len(), 64);
        assert!(first.token.chars().all(|c| c.is_ascii_hexdigit()));
        let again = load_or_create_token(&data).expect("read");
        assert!(!again.created);
        assert_eq!(again.token, first.token);
        let other = load_or_create_token(&dir.path().join("other")).expect("made");
        assert_ne!(other.token, first.token);
    }

    #[cfg(unix)]
    #[test]
    fn only_the_owner_can_read_it() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let stored = load_or_create_token(dir.path()).expect("made");
        let mode = fs::metadata(&stored.path)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn an_empty_file_is_an_error_not_an_empty_token() {
        let dir = tempfile::tempdir().expect("temp dir");
        fs::write(dir.path().join(TOKEN_FILE), "\n").expect("write");
        assert!(load_or_create_token(dir.path()).is_err());
    }
}
