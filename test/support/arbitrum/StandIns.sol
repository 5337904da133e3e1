// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IOutbox {
    function updateSendRoot(bytes32 root, bytes32 l2BlockHash) external;
}

interface ISequencerInboxPosting {
    function addSequencerL2Batch(
        uint256 sequenceNumber,
        bytes calldata data,
        uint256 afterDelayedMessagesRead,
        address gasRefunder,
        uint256 prevMessageCount,
        uint256 newMessageCount
    ) external;
}

/// STAND-IN for Nitro's RollupProxy (RollupCore/RollupAdminLogic/RollupUserLogic), which needs the
/// whole assertion and challenge protocol (stakes, a challenge manager, an OSP) before it confirms
/// anything. It has what the Bridge, SequencerInbox and Outbox ask of their rollup — `owner()` —
/// and what an explorer reads of it — `sequencerInbox()`, `outbox()`, `bridge()` — and confirms an
/// assertion with the very call RollupCore's confirmation makes: `outbox.updateSendRoot(sendRoot,
/// blockHash)`, so the Outbox emits its real SendRootUpdated.
contract StandInRollup {
    address public owner;
    address public bridge;
    address public sequencerInbox;
    address public outbox;

    constructor() {
        owner = msg.sender;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "not owner");
        _;
    }

    function setContracts(address bridge_, address sequencerInbox_, address outbox_) external onlyOwner {
        bridge = bridge_;
        sequencerInbox = sequencerInbox_;
        outbox = outbox_;
    }

    /// the rollup's own calls into the bridge (setSequencerInbox, setOutbox are onlyRollupOrOwner)
    function execute(address target, bytes calldata data) external onlyOwner {
        (bool ok, bytes memory result) = target.call(data);
        if (!ok) {
            assembly {
                revert(add(result, 32), mload(result))
            }
        }
    }

    function confirm(bytes32 sendRoot, bytes32 l2BlockHash) external onlyOwner {
        IOutbox(outbox).updateSendRoot(sendRoot, l2BlockHash);
    }
}

/// A batch poster that is a contract (a multisig or poster manager does this): its transaction's
/// input is `post(...)`, not a SequencerInbox call, so the SequencerInbox's real
/// addSequencerL2Batch puts the data in a SequencerBatchData event and the batch's counts are not
/// in the transaction. Not a stand-in: a real caller of the real contract.
contract ContractBatchPoster {
    function post(address inbox, uint256 sequenceNumber, bytes calldata data, uint256 prevMessageCount, uint256 newMessageCount) external {
        ISequencerInboxPosting(inbox).addSequencerL2Batch(sequenceNumber, data, 0, address(0), prevMessageCount, newMessageCount);
    }
}

/// STAND-IN for Nitro's NodeInterface at 0x00000000000000000000000000000000000000C8, which is a
/// virtual contract: a Nitro node answers calls to that address from its own batch records, and
/// there is no code to deploy on anvil. Installed on the child anvil with anvil_setCode; the test
/// writes its storage (anvil_setStorageAt, so no child block is mined) from the batches it really
/// posted on the parent chain. Like the real one, it refuses a block before the chain's first
/// message block and a block no batch holds yet.
contract StandInNodeInterface {
    /// slot 0: the last child block of batch i
    uint256[] public lastBlockOfBatch;
    /// slot 1: the child block of the first message (Nitro's genesis block)
    uint256 public genesisBlock;

    function findBatchContainingBlock(uint64 blockNum) external view returns (uint64 batch) {
        require(blockNum >= genesisBlock, "block is before genesis");
        for (uint256 i = 0; i < lastBlockOfBatch.length; i++) {
            if (blockNum <= lastBlockOfBatch[i]) return uint64(i);
        }
        revert("block not yet in any batch");
    }
}
